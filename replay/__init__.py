"""Everything done with a log: replay, audit, viewer."""
