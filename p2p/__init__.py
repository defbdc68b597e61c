"""Everything a peer does: identity, fair dealing, the signed log, the table protocol, transport."""
