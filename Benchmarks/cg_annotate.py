#!/usr/bin/env python3
"""Per-instruction execution counts of one function from a callgrind profile.

usage: cg_annotate.py CALLGRIND_OUT BINARY SYMBOL_SUBSTRING

CALLGRIND_OUT must come from `valgrind --tool=callgrind --dump-instr=yes`. Prints the
disassembly (objdump) of every function whose mangled name contains SYMBOL_SUBSTRING, each
instruction prefixed by how many times it ran, then the total. Sorting the output by the first
column shows the hot loop; instructions that share a count form one basic block.
"""
import sys, re, subprocess, collections
out, binary, sym = sys.argv[1], sys.argv[2], sys.argv[3]
costs = collections.Counter()
positions = ['line']
cur_addr = 0; cur_line = 0
in_calls = 0  # the cost line after `calls=` is a call's inclusive cost, not this address's
def parse_pos(tok, prev):
    if tok == '*': return prev
    if tok.startswith('+'): return prev + int(tok[1:], 0)
    if tok.startswith('-'): return prev - int(tok[1:], 0)
    return int(tok, 0)
for line in open(out):
    line = line.rstrip('\n')
    if line.startswith('positions:'):
        positions = line.split()[1:]; continue
    if not line or not (line[0].isdigit() or line[0] in '+-*'):
        if line.startswith('calls='): in_calls = 1
        continue
    parts = line.split()
    np = len(positions)
    vals = parts[:np]; rest = parts[np:]
    a = parse_pos(vals[0], cur_addr); cur_addr = a
    if np > 1: cur_line = parse_pos(vals[1], cur_line)
    if in_calls:  # cost line after calls= is inclusive cost of call; skip
        in_calls = 0; continue
    if rest: costs[a] += int(rest[0])
dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', binary], capture_output=True, text=True).stdout
infn = False; total = 0; rows = []
for l in dis.splitlines():
    if l.endswith('>:'):
        infn = sym in l
        if infn: rows.append(l)
        continue
    if infn and l.strip():
        m = re.match(r'\s*([0-9a-f]+):\s*(.*)', l)
        if m:
            ad = int(m.group(1), 16); c = costs.get(ad, 0); total += c
            rows.append(f"{c:>10}  {m.group(1)}: {m.group(2)[:100]}")
print('\n'.join(rows)); print('total', total)
