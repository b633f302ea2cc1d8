#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The plain remap's colour caches (colour to entry and squared distance, direct-mapped), kept
/// with a palette's `Remapper` from one image to the next: the frames of an animation mapped
/// to one palette share most colours (the mandelbrot clip: about 10,000 searches a frame with
/// a cache per band and image, 7,000 for all 30 frames with caches kept). A cached answer is
/// the one a search gives (the nearest entry depends on the colour alone), so results never
/// depend on what a cache holds. Each band takes a cache of its own from the pool and gives it
/// back, so bands on other threads, and images remapped at once, never share one.
final class RemapCaches: @unchecked Sendable {
    // `@unchecked`: `free` is read and written only with `lock` held.
    final class Cache {
        var keys: [UInt64]
        var errors: [Float]

        init(size: Int = Remapper.cacheSize) {
            keys = [UInt64](repeating: 0, count: size)
            errors = [Float](repeating: 0, count: size)
        }

        /// No slots: for remaps that use no cache (ordered dithering).
        static var empty: Cache { Cache(size: 0) }
    }

    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var free: [Cache] = []

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// A cache no one else holds (a new one when the pool is empty).
    func take() -> Cache {
        pthread_mutex_lock(lock)
        let cache = free.popLast()
        pthread_mutex_unlock(lock)
        return cache ?? Cache()
    }

    /// Returns a cache to the pool (at most 8 are kept).
    func give(_ cache: Cache) {
        pthread_mutex_lock(lock)
        if free.count < 8 { free.append(cache) }
        pthread_mutex_unlock(lock)
    }
}
