from minirag.cli import main

code = main()
# CPython remembers a KeyboardInterrupt that ended any string exec() or eval() (a dataclass or
# namedtuple being made when Ctrl-C lands), caught or not, and under `python -m` then ends the
# process by SIGINT instead of with this code. The start of a string exec forgets it.
exec("")
raise SystemExit(code)
