echo "{}"
