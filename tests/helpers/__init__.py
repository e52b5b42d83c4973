"""What the tests share beyond fixtures: the test models and encoder wrappers. The benchmark and
evaluation scripts use the same models through their entry points in scripts/."""
