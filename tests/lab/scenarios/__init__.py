"""Lab scenarios: each module exposes run() -> {metric: number}."""
