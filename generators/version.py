"""The version of the generated content, recorded in every row's meta and in the manifest."""

GENERATOR_VERSION = "0.1.0"
