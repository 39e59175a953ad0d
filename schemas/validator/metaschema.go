package validator

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"strings"
)

// metaSchemaFS holds verbatim copies of the draft 2020-12 meta-schema and
// its vocabulary meta-schemas, as published at
// https://json-schema.org/draft/2020-12/, and of the draft-07 meta-schema.
// kaptinlin/jsonschema v0.9.10 bundles only the draft-04/06/07 meta-schemas
// (metaschema.go, builtinMetaSchemaJSON), and with its http/https loaders
// replaced its ValidateSchema on a 2020-12 schema needs a loader to serve
// it. It uses its draft-07 copy only for ValidateSchema: a "$ref" to
// http://json-schema.org/draft-07/schema fails the compile unless a loader
// serves it (the draft-07 copy here is kaptinlin's, draft7MetaSchemaJSON,
// indented).
//
//go:embed metaschema/draft2020-12/schema.json metaschema/draft2020-12/meta/*.json metaschema/draft-07/schema.json
var metaSchemaFS embed.FS

// metaSchemaBase is the URL prefix of the draft 2020-12 meta-schemas.
const metaSchemaBase = "https://json-schema.org/draft/2020-12/"

// metaSchemaFiles maps each meta-schema URL (no fragment) to its embedded file.
var metaSchemaFiles = map[string]string{
	metaSchemaBase + "schema":                 "metaschema/draft2020-12/schema.json",
	metaSchemaBase + "meta/core":              "metaschema/draft2020-12/meta/core.json",
	metaSchemaBase + "meta/applicator":        "metaschema/draft2020-12/meta/applicator.json",
	metaSchemaBase + "meta/unevaluated":       "metaschema/draft2020-12/meta/unevaluated.json",
	metaSchemaBase + "meta/validation":        "metaschema/draft2020-12/meta/validation.json",
	metaSchemaBase + "meta/meta-data":         "metaschema/draft2020-12/meta/meta-data.json",
	metaSchemaBase + "meta/format-annotation": "metaschema/draft2020-12/meta/format-annotation.json",
	metaSchemaBase + "meta/content":           "metaschema/draft2020-12/meta/content.json",
	"http://json-schema.org/draft-07/schema":  "metaschema/draft-07/schema.json",
}

// offlineLoader is the compiler's only URL loader. It serves the embedded
// meta-schemas and refuses everything else, so that a $ref to an unknown URL
// stays unresolved (and fails the load) instead of being fetched.
func offlineLoader(url string) (io.ReadCloser, error) {
	key, _, _ := strings.Cut(url, "#")
	if name, ok := metaSchemaFiles[key]; ok {
		b, err := metaSchemaFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	return nil, fmt.Errorf("%s is not in the registry and is never fetched", url)
}
