module example.com/violation

go 1.22

require github.com/kaptinlin/jsonschema v0.0.0

replace github.com/kaptinlin/jsonschema => ./kaptinlin
