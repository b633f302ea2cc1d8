import Hummingbird
import PureImage

/// The HTTP status for what went wrong with an upload, or nil when the error is not the
/// upload's fault (the connection dropped, the task was cancelled): those propagate.
///
/// - 400: no bytes at all.
/// - 413: over a limit: the upload size, or a `DecodingLimits` bound (pixels, memory, the
///   checks against the Content-Length, frames, scans, metadata).
/// - 415: the first bytes match no format PureImage knows.
/// - 422: a known format, damaged or truncated.
func uploadStatus(for error: any Error) -> HTTPResponse.Status? {
    switch error {
    case ImageSourceError.noData:
        return .badRequest
    case ImageSourceError.unknownFormat:
        return .unsupportedMediaType
    case is UploadTooLarge:
        return .contentTooLarge
    case is PNGError, is JPEGError, is GIFError, is JPNGError, is WebPError:
        return isLimitExceeded(error) ? .contentTooLarge : .unprocessableContent
    default:
        return nil
    }
}

/// Whether a codec error reports a `DecodingLimits` violation. Each codec has its own case for
/// it (`limitExceeded(LimitViolation, offset:)`, and JPEG's scan count apart); JPNG wraps the
/// errors of its colour (JPEG) and mask (PNG) parts.
func isLimitExceeded(_ error: any Error) -> Bool {
    switch error {
    case PNGError.limitExceeded, JPEGError.limitExceeded, JPEGError.tooManyScans, GIFError.limitExceeded, WebPError.limit:
        return true
    case let JPNGError.colorPart(inner):
        return isLimitExceeded(inner)
    case let JPNGError.maskPart(inner, _):
        return isLimitExceeded(inner)
    default:
        return false
    }
}
