module github.com/kaptinlin/jsonschema

go 1.22
