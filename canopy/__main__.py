from canopy.cli import main

raise SystemExit(main())
