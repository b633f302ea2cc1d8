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
        /// Per component: IDCT output for the whole plane, and (components that need it) the
        /// upsampled plane at output size; owned here, freed in `deinit`.
        var planes: [UnsafeMutableBufferPointer<UInt8>] = []
        var planeStamps: [CoefficientStamp?] = []
        var upsampled: [UnsafeMutableBufferPointer<UInt8>] = []
        var upsampledStamps: [CoefficientStamp?] = []
        var image: Image?
        var imageStamps: [CoefficientStamp] = []

        /// `buffer` with exactly `count` bytes (contents undefined when reallocated).
        static func resize(_ buffer: inout UnsafeMutableBufferPointer<UInt8>, _ count: Int) {
            guard buffer.count != count else { return }
            buffer.deallocate()
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: 0)
        }
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
        for buffer in state.planes + state.upsampled { buffer.deallocate() }
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
            let gc = geometry.components[c]
            total += gc.stride * fc.paddedBlocksHigh * gc.blockSize
            if gc.hUp != 1 || gc.vUp != 1 { total += geometry.width * geometry.height }
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
                for buffer in state.planes + state.upsampled { buffer.deallocate() }
                state.planes = (0 ..< n).map { _ in UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0) }
                state.upsampled = (0 ..< n).map { _ in UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0) }
                state.planeStamps = [CoefficientStamp?](repeating: nil, count: n)
                state.upsampledStamps = [CoefficientStamp?](repeating: nil, count: n)
            }
            for (c, fc) in frame.components.enumerated() {
                let gc = geometry.components[c]
                if state.planeStamps[c] !== stamps[c] {
                    PreviewCache.State.resize(&state.planes[c], gc.stride * fc.paddedBlocksHigh * gc.blockSize)
                    renderPlane(c, frame: frame, geometry: geometry, into: state.planes[c])
                    state.planeStamps[c] = stamps[c]
                }
                if (gc.hUp != 1 || gc.vUp != 1) && state.upsampledStamps[c] !== stamps[c] {
                    PreviewCache.State.resize(&state.upsampled[c], geometry.width * geometry.height)
                    guard let plane = state.planes[c].baseAddress, let up = state.upsampled[c].baseAddress else { continue }
                    let stride = gc.stride
                    Upsample.upsample(h: gc.hUp, v: gc.vUp, fancy: geometry.fancy, inputWidth: gc.width,
                                      inputHeight: gc.height, outputWidth: geometry.width,
                                      outputRows: 0 ..< geometry.height, row: { UnsafePointer(plane + $0 * stride) },
                                      output: up, outputStride: geometry.width)
                    state.upsampledStamps[c] = stamps[c]
                }
            }
            let image = assemble(geometry: geometry, planes: state.planes, upsampled: state.upsampled)
            state.image = image
            state.imageStamps = stamps
            return image
        }
        guard var image = cached else { return render(frame: frame, geometry: geometry) }
        image.metadata = metadata
        return image
    }

    /// Every block of component `c` through its IDCT into one whole plane.
    private func renderPlane(_ c: Int, frame: Frame, geometry: OutputGeometry, into plane: UnsafeMutableBufferPointer<UInt8>) {
        let fc = frame.components[c], gc = geometry.components[c]
        let idct = JPEGKernels.select(scale: gc.blockSize, useSIMD: useSIMD).idct
        let offset = coefficientOffsets[c]
        coefficients.withUnsafeBufferPointer { coefficientBuffer in
            componentQuant.withUnsafeBufferPointer { quant in
                guard let planeBase = plane.baseAddress, let coef = coefficientBuffer.baseAddress,
                      let q = quant.baseAddress else { return }
                for by in 0 ..< fc.paddedBlocksHigh {
                    var block = coef + offset + by * fc.paddedBlocksWide * 64
                    var target = planeBase + by * gc.blockSize * gc.stride
                    for _ in 0 ..< fc.paddedBlocksWide {
                        idct(block, q + c * JPEGKernels.quantStride, target, gc.stride)
                        block += 64
                        target += gc.blockSize
                    }
                }
            }
        }
    }

    /// Colour conversion of whole planes (upsampled where the component needs it) into a new
    /// image. Every byte is written, so the pixel buffer starts uninitialised.
    private func assemble(geometry g: OutputGeometry, planes: [UnsafeMutableBufferPointer<UInt8>],
                          upsampled: [UnsafeMutableBufferPointer<UInt8>]) -> Image {
        let bpp = g.format.bytesPerPixel
        let count = g.width * g.height * bpp
        let inverted = collector.adobeTransform != nil
        var scratch = [UInt8](repeating: 0, count: max(g.width * 4, 1))
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = count
            guard let out = buffer.baseAddress else { return }
            var bases: [(UnsafePointer<UInt8>, Int)] = []
            for (c, gc) in g.components.enumerated() where c < 4 {
                let upsample = gc.hUp != 1 || gc.vUp != 1
                guard let base = upsample ? upsampled[c].baseAddress : planes[c].baseAddress else {
                    buffer.initialize(repeating: 128)
                    return
                }
                bases.append((UnsafePointer(base), upsample ? g.width : gc.stride))
            }
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                guard let scratchBase = scratchBuffer.baseAddress else { return }
                var rows = [UnsafePointer<UInt8>](repeating: UnsafePointer(out), count: 4)
                for y in 0 ..< g.height {
                    for (c, (base, stride)) in bases.enumerated() { rows[c] = base + y * stride }
                    BandPipeline.convert(rows, transform: g.transform, format: g.format, width: g.width,
                                         inverted: inverted, out: out + y * g.width * bpp, scratch: scratchBase)
                }
            }
        }
        return Image(width: g.width, height: g.height, format: g.format, pixels: pixels, metadata: metadata)
    }
}

extension Image {
    /// An image whose pixel bytes are not initialised (no zero fill: 3 bytes a pixel of memset
    /// the decode would overwrite anyway). Only for buffers the decoder writes completely, or
    /// whose unwritten rows it fills before any of them is seen (streaming: `preview()` and EOI
    /// fill the rows past `rowsDone`).
    static func unfilled(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = ImageMetadata()) -> Image {
        let count = width * height * format.bytesPerPixel
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        return Image(width: width, height: height, format: format, pixels: pixels, metadata: metadata)
    }
}
