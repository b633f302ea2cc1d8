import ImageCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The identity of one state of a component's coefficients. A decoder replaces a component's
/// stamp whenever a scan may change its coefficients, so two decoder values holding the same
/// stamp (copies that have not diverged since) hold the same coefficients for that component.
final class CoefficientStamp: Sendable {}

/// What the last coefficient render left behind, for the next one: each component's samples
/// (the whole plane, IDCT output) and the finished image, each with the stamps it was made
/// from. A progressive scan changes one component (DC scans: all), so a preview after it
/// re-runs the IDCT of that component only, and the render at EOI returns the preview made
/// after the last scan as it is.
///
/// The box is shared by copies of a ``JPEGDecoder`` (it is a class so that the non-mutating
/// `preview()` can fill it). That is safe because every use compares stamps by identity
/// before reusing anything, and the state sits behind a mutex: copies that diverge only
/// overwrite each other's cache. (A pthread mutex: `Synchronization.Mutex` needs macOS 15.)
final class PreviewCache: @unchecked Sendable {
    struct State {
        var planes: [[UInt8]] = []
        var planeStamps: [CoefficientStamp?] = []
        var image: Image?
        var imageStamps: [CoefficientStamp] = []
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Only touched inside ``withLock(_:)``.
    private var state = State()

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Whether a preview has stored planes (the render at EOI then reuses them).
    var isFilled: Bool { withLock { !$0.planes.isEmpty } }

    func withLock<R>(_ body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }
}

extension JPEGDecoder {
    /// New stamps for the components a scan is about to change (coefficient mode).
    mutating func stampComponents(_ components: [ScanComponent]) {
        for c in components where c.index < coefficientStamps.count {
            coefficientStamps[c.index] = CoefficientStamp()
        }
    }

    /// Bytes of the whole-plane sample buffers a cached render keeps.
    func cachedPlaneBytes(frame: Frame, geometry: OutputGeometry) -> Int {
        var total = 0
        for (c, fc) in frame.components.enumerated() {
            total += geometry.components[c].stride * fc.paddedBlocksHigh * geometry.components[c].blockSize
        }
        return total
    }

    /// ``render(frame:geometry:)`` through the cache: unchanged components keep their samples,
    /// an unchanged image is returned as it is. `fill` false only reads the cache (the render
    /// at EOI of a decode that never asked for a preview keeps its old memory footprint and
    /// path).
    /// Falls back to the plain render when the planes would break ``DecodingLimits``.
    func cachedRender(frame: Frame, geometry: OutputGeometry, fill: Bool) -> Image {
        let stamps = coefficientStamps
        let planeBytes = cachedPlaneBytes(frame: frame, geometry: geometry)
        let extra = geometry.workingBytes + frame.coefficientBytes + planeBytes
        let fits = limits.check(width: geometry.width, height: geometry.height,
                                bytesPerPixel: geometry.format.bytesPerPixel, extraBytes: extra) == nil
        let n = frame.components.count
        let cached: Image? = previewCache.withLock { state -> Image? in
            if let image = state.image, state.imageStamps.count == n, stamps.count == n,
               zip(state.imageStamps, stamps).allSatisfy({ $0 === $1 }) {
                return image
            }
            guard fill && fits && stamps.count == n else { return nil }
            if state.planes.count != n {
                state.planes = [[UInt8]](repeating: [], count: n)
                state.planeStamps = [CoefficientStamp?](repeating: nil, count: n)
            }
            for (c, fc) in frame.components.enumerated() where state.planeStamps[c] !== stamps[c] {
                let gc = geometry.components[c]
                let bytes = gc.stride * fc.paddedBlocksHigh * gc.blockSize
                if state.planes[c].count != bytes { state.planes[c] = [UInt8](repeating: 0, count: bytes) }
                renderPlane(c, frame: frame, geometry: geometry, into: &state.planes[c])
                state.planeStamps[c] = stamps[c]
            }
            let image = assemble(frame: frame, geometry: geometry, planes: state.planes)
            state.image = image
            state.imageStamps = stamps
            return image
        }
        guard var image = cached else { return render(frame: frame, geometry: geometry) }
        image.metadata = metadata
        return image
    }

    /// Every block of component `c` through its IDCT into one whole plane.
    private func renderPlane(_ c: Int, frame: Frame, geometry: OutputGeometry, into plane: inout [UInt8]) {
        let fc = frame.components[c], gc = geometry.components[c]
        let idct = JPEGKernels.select(scale: gc.blockSize, useSIMD: useSIMD).idct
        let offset = coefficientOffsets[c]
        plane.withUnsafeMutableBufferPointer { planeBuffer in
            coefficients.withUnsafeBufferPointer { coefficientBuffer in
                componentQuant.withUnsafeBufferPointer { quant in
                    guard let planeBase = planeBuffer.baseAddress, let coef = coefficientBuffer.baseAddress,
                          let q = quant.baseAddress else { return }
                    for by in 0 ..< fc.paddedBlocksHigh {
                        var block = coef + offset + by * fc.paddedBlocksWide * 64
                        var target = planeBase + by * gc.blockSize * gc.stride
                        for _ in 0 ..< fc.paddedBlocksWide {
                            idct(block, q + c * 64, target, gc.stride)
                            block += 64
                            target += gc.blockSize
                        }
                    }
                }
            }
        }
    }

    /// Upsampling and colour conversion of whole planes, band by band through the streaming
    /// pipeline (each band's rows are copied into its ring; a copy costs far less than the IDCT
    /// it replaces).
    private func assemble(frame: Frame, geometry: OutputGeometry, planes: [[UInt8]]) -> Image {
        var out = Image(width: geometry.width, height: geometry.height, format: geometry.format, metadata: metadata)
        var pipeline = BandPipeline(geometry: geometry, inverted: collector.adobeTransform != nil, useSIMD: useSIMD)
        out.pixels.withUnsafeMutableBufferPointer { outBuffer in
            guard let outBase = outBuffer.baseAddress else { return }
            for band in 0 ..< geometry.bands {
                for c in 0 ..< frame.components.count {
                    let gc = geometry.components[c]
                    let bytes = gc.bandRows * gc.stride
                    let start = band * bytes
                    let target = pipeline.blockOffset(component: c, band: band, blockX: 0, blockRow: 0)
                    guard start + bytes <= planes[c].count, target + bytes <= pipeline.planes.count else { continue }
                    pipeline.planes.withUnsafeMutableBufferPointer { ring in
                        planes[c].withUnsafeBufferPointer { plane in
                            guard let r = ring.baseAddress, let p = plane.baseAddress else { return }
                            (r + target).update(from: p + start, count: bytes)
                        }
                    }
                }
                _ = pipeline.bandDone(band, output: outBase)
            }
        }
        return out
    }
}
