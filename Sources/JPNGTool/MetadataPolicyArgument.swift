import ArgumentParser
import PureImage

/// `--metadata all|color|none`.
extension MetadataPolicy: ExpressibleByArgument {}
