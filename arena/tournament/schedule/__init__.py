"""Who plays whom, in what order, on which dice: pure, so resume and `arena verify` rebuild it."""
