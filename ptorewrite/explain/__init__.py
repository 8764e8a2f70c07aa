"""Why auto2manual inserted each line: a JSON record (`record`), a terminal view (`terminal`)
and an HTML report with the emulated timeline (`html`). The record's schema is
`schema/explain.schema.json`; its version is in every record."""
