// `import PureImage` is the one import an app needs: every codec's public types come with it.
// Apps that want one format only depend on that codec's product instead.
@_exported import ImageCore
@_exported import JPNG
@_exported import PureGIF
@_exported import PureJPEG
@_exported import PurePNG
@_exported import PureColor
@_exported import PureWebP
@_exported import PureQuant
