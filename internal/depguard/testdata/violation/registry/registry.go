// Package registry must not import the pipeline, and does.
package registry

import (
	_ "example.com/violation/handlers"
	_ "example.com/violation/schemas/validator" // kaptinlin through its seam: allowed
)
