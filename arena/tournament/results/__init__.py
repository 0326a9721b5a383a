"""What a run leaves: its results folder (the truth), its lock, the league's copy of its games,
and the checks made of them before a resume and by `arena verify`."""
