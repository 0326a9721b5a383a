"""The wire: the only package that touches the generated protobuf code."""
