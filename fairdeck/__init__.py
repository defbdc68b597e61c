"""The fairdeck command line."""
