from ctxconf.cli import main

raise SystemExit(main())
