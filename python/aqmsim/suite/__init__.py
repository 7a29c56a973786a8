"""RFC 7928 characterisation suite (the lead's runner replaces this file at merge)."""
