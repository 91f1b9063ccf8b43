"""The operator's console: its static files (`static/`, a browser application on the staff routes), who the signed-in
staff member is, and the audit trail of what staff change (written by each service, `ott.audit`)."""
