package executor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// DecodeAs decodes the result's result_data into a T, strictly: a member
// that T has no field for is an error rather than silently dropped, so a
// drift between the Go type and the registry schema it was made from
// (package goschema) shows at once. Free-text results are an error too.
func DecodeAs[T any](r *Result) (T, error) {
	var v T
	if len(r.Data) == 0 {
		return v, fmt.Errorf("executor: run %q has no result_data (free-text result)", r.RunID)
	}
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, fmt.Errorf("executor: decoding run %q's result_data into %T: %w", r.RunID, v, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return v, fmt.Errorf("executor: run %q's result_data holds more than one document", r.RunID)
	}
	return v, nil
}
