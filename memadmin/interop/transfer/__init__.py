"""A project as one JSON document: its export, the document's checks, and its import."""
