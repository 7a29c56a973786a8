"""The RFC 7928 characterisation suite (``aqmsim suite rfc7928``)."""
