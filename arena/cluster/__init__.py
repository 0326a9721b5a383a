"""The league played across machines: a host per node of a Ray cluster, one coordinator."""
