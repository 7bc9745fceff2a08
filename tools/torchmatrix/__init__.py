"""tools/torch-matrix in parts: common (paths, the versions file), record (checked.json),
envs (one environment per torch release), commands (run, import, status). The command itself
is tools/torch-matrix, which imports this checkout's pitfalls first."""
