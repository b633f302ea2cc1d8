import ImageCore

// The decoder's state, grouped by what it is for. `JPEGDecoder` holds the input and the phase,
// the markers' facts (``MarkerState``), the tables (``CodingTables``, ``ArithmeticConditioning``),
// the frame and its output geometry, the scan in progress, and one ``DecodingProcess`` value:
// the state of the process the frame uses. A decoder is a value: a copy is a rollback point
// (``JPEGDecoder/appendWholeFile(_:)`` tries a whole-file decode on a copy). Each type below says
// what stays consistent when a decoder is copied.

/// What the marker segments outside the scans said, besides the tables and the frame.
///
/// Copies are independent (values only).
struct MarkerState: Sendable {
    /// APPn and COM segments as read (metadata, Adobe and JFIF facts).
    var collector = MetadataCollector()
    /// The quality a libjpeg encoder would have used for the DQT tables read (nil until DQT).
    var estimatedQuality: Int?
    /// Bytes between a scan's end and the next marker (libjpeg's JWRN_EXTRANEOUS_DATA count).
    var extraneousBytes = 0
    /// Where the bytes of the file end when ``JPEGDecoder/finish()`` supplied EOI to a file cut
    /// short (no warning about the supplied bytes after it), else nil.
    var suppliedEOI: Int?
    /// Bytes after EOI were reported (once).
    var reportedDataAfterEnd = false
}

/// The tables DQT, DHT and DRI defined so far, and the quantization tables each component
/// latched at its first scan (libjpeg latches them there; a later DQT does not change them).
///
/// Copies are independent (values and immutable ``HuffmanTable`` lookups).
struct CodingTables: Sendable {
    var quant: [[UInt16]?] = [nil, nil, nil, nil]
    /// The quantization table each component uses, latched at its first scan, prepared for the
    /// kernels (4 x `JPEGKernels.quantStride`).
    var componentQuant = [UInt16](repeating: 0, count: 4 * JPEGKernels.quantStride)
    var quantLatched = [Bool](repeating: false, count: 4)
    /// The same tables as DQT gave them (natural order), for the 12-bit IDCT.
    var componentQuantTables: [[UInt16]] = [[], [], [], []]
    var dc: [HuffmanTable?] = [nil, nil, nil, nil]
    var ac: [HuffmanTable?] = [nil, nil, nil, nil]
    /// Tables defined but invalid (DC 0-3, AC 4-7): refused when a scan uses them, as libjpeg does.
    var invalid: [JPEGError?] = Array(repeating: nil, count: 8)
    /// Huffman slots (bits 0-3 DC, 4-7 AC) holding T.81 K.3's tables because no DHT defined
    /// them; a scan that uses one is reported once (a Motion-JPEG frame), one that does not is clean.
    var standardSlots: UInt8 = 0
    /// DRI's interval in MCUs (lossless: in samples), 0 without restarts.
    var restartInterval = 0
    /// The DC-class tables as DHT gave them: lossless scans build theirs from these (their
    /// categories run to 16, which a DCT scan's DC table refuses).
    var losslessSpecs: [(counts: [UInt8], values: [UInt8])?] = [nil, nil, nil, nil]
}

/// Arithmetic coding's state: the conditioning DAC set per table number (T.81 B.2.4.3;
/// libjpeg's `arith_dc_L`, `arith_dc_U`, `arith_ac_K`, with T.81's defaults) and the current
/// scan's statistics bins (``ArithmeticBins``; empty until an arithmetic-coded scan starts).
/// The QM decoder's registers live in ``EntropyState`` with the scan's other entropy state.
///
/// Copies are independent: the bins are an array, moved out of the decoder while the MCU loop
/// runs (``JPEGDecoder/decodeMCUs(_:stop:isFinal:changes:band:)``) so they are never copied.
struct ArithmeticConditioning: Sendable {
    var dcL = [UInt8](repeating: 0, count: 16)
    var dcU = [UInt8](repeating: 1, count: 16)
    var acK = [UInt8](repeating: 5, count: 16)
    var bins: [UInt8] = []
}

/// The state of the process in use, decided at the frame's first scan.
///
/// - `streaming`: a sequential 8-bit frame whose first scan holds every component (Huffman or
///   arithmetic): each MCU row goes through the IDCT, upsampling and colour conversion as it is
///   decoded, and its output rows are final at once.
/// - `coefficients`: progressive frames, sequential frames in several scans, and 12-bit frames:
///   scans add to a store of coefficients, rendered for previews and at EOI.
/// - `lossless`: the lossless process: scans add to planes of samples.
///
/// The payload is moved out while it changes (``JPEGDecoder/streamState`` and its siblings have
/// `_modify` accessors that leave `.undecided` in its place), so its arrays and classes stay
/// uniquely referenced and are never copied on the hot path. Reads return a copy (a `get`: a
/// `_read` coroutine yielding the `if case` binding let callers read the value after the
/// coroutine's frame was freed, which AddressSanitizer caught in debug builds).
enum DecodingProcess: Sendable {
    case undecided
    case streaming(StreamingState)
    case coefficients(CoefficientState)
    case lossless(LosslessState)
}

/// The streaming process: the band pipeline that turns MCU rows into output rows, and the
/// second thread's worker when it decodes on two (``BandWorker``).
///
/// On a copy: the pipeline's rings are arrays (copied on write); the worker is a class shared
/// with the copy, which the decoder replaces with its own (``BandWorker/copy()``) before using
/// it when the copy still holds it.
struct StreamingState: Sendable {
    var pipeline: BandPipeline?
    var bandWorker: BandWorker?

    /// What reads outside the streaming process see.
    static let none = StreamingState()
}

/// The coefficient process: the store, the progression bookkeeping, previews and the final
/// render.
///
/// On a copy: the store (``DecodedCoefficients``, spilled to a file or not) and the preview cache
/// are classes shared with the copy. A scan that changes coefficients first takes its own store
/// (``JPEGDecoder/ownCoefficients()``) and a fresh cache (``JPEGDecoder/prepareCoefficientChange()``)
/// when the copy still holds them, so each decoder value sees exactly its own scans.
struct CoefficientState: Sendable {
    /// The coefficients of every component, one after another.
    var store = DecodedCoefficients.empty
    /// Each component's first block in the store and in the change map.
    var firstBlocks: [Int] = []
    /// Progression status per component and coefficient: the last Al sent, -1 before any
    /// (libjpeg's `coef_bits`).
    var coefficientBits = [Int8](repeating: -1, count: 256)
    /// libjpeg's second half of `coef_bits` (block smoothing): per component and coefficient
    /// 0...9 or the scan's band, the status before the latest scan of that component (0 when
    /// that scan was the file's first), -1 before any.
    var previousCoefficientBits = [Int8](repeating: -1, count: 256)
    /// The renders kept for reuse, and what changed since (see ``PreviewCache``).
    var previewCache: PreviewCache
    /// Row mode after EOI: the final pass, a band at a time.
    var finalRender: FinalRender?
    /// An AC scan passed over unread (``SkippedScan``) while its end is searched for, and how
    /// many scans were passed over.
    var skipped: SkippedScan?
    var scansPassedOver = 0
    /// How many bytes of a scan's entropy-coded data are held back until the marker that ends
    /// the scan arrives, so that the coefficients (and so ``JPEGDecoder/preview()``) only ever
    /// hold completed scans. A longer scan is decoded as it arrives.
    var heldScanLimit = 0

    init(previewCache: PreviewCache = PreviewCache()) {
        self.previewCache = previewCache
    }

    /// What reads outside the coefficient process see (an empty store and cache, never
    /// written: changes outside the process go to a scratch value).
    static let none = CoefficientState()
}

/// The lossless process: the scan in progress, each component's samples and its rows decoded.
///
/// Copies are independent (arrays, copied on write; the planes are moved out while a scan
/// writes them).
struct LosslessState: Sendable {
    var scan: LosslessScan?
    var planes: [[UInt16]] = []
    var rows: [Int] = []
    /// Decoded straight into the image (one 16-bit component, no point transform).
    var direct = false

    /// What reads outside the lossless process see.
    static let none = LosslessState()
}

extension JPEGDecoder {
    enum Mode: Sendable { case undecided, streaming, coefficients, lossless }

    /// Which process is in use.
    var mode: Mode {
        switch process {
        case .undecided: .undecided
        case .streaming: .streaming
        case .coefficients: .coefficients
        case .lossless: .lossless
        }
    }

    /// The streaming process's state. Outside that process, reads give an empty state
    /// (``StreamingState/none``) and changes are dropped.
    var streamState: StreamingState {
        get {
            if case .streaming(let state) = process { return state }
            return StreamingState.none
        }
        _modify {
            guard case .streaming(var state) = process else {
                var scratch = StreamingState()
                yield &scratch
                return
            }
            process = .undecided
            defer { process = .streaming(state) }
            yield &state
        }
    }

    /// The coefficient process's state. Outside that process, reads give an empty state
    /// (``CoefficientState/none``) and changes are dropped.
    var coefficientState: CoefficientState {
        get {
            if case .coefficients(let state) = process { return state }
            return CoefficientState.none
        }
        _modify {
            guard case .coefficients(var state) = process else {
                var scratch = CoefficientState()
                yield &scratch
                return
            }
            process = .undecided
            defer { process = .coefficients(state) }
            yield &state
        }
    }

    /// The lossless process's state. Outside that process, reads give an empty state
    /// (``LosslessState/none``) and changes are dropped.
    var losslessState: LosslessState {
        get {
            if case .lossless(let state) = process { return state }
            return LosslessState.none
        }
        _modify {
            guard case .lossless(var state) = process else {
                var scratch = LosslessState()
                yield &scratch
                return
            }
            process = .undecided
            defer { process = .lossless(state) }
            yield &state
        }
    }
}
