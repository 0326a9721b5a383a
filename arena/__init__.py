"""Perudo Arena: the referee, the tournament runner and the league.

Kept free of imports so that small entry points (the process launcher, the
bot kit) start fast; import the module you need.
"""
