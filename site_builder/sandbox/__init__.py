"""Running archive code: the bubblewrap sandbox, its launchers, limits and seccomp filter."""
