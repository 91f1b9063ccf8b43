"""HTTP edge of every function: event parsing (request), reply shaping (reply, xml), the error map
(errors) and the decorator stack (handler)."""
