"""`arena ab`: is NEW stronger than OLD? Duplicate deals, paired outcomes, a sequential test."""
