"""What a run tells of itself: ratings and the leaderboard with its confidence, faults by kind,
decision times, what its timeouts mean, and the end-of-run summary."""
