from mcts_course.cli import main

raise SystemExit(main())
