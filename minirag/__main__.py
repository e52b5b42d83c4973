from minirag.cli import main

raise SystemExit(main())
