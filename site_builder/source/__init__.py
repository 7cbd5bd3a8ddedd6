"""Reading the archive: the walk, problem.yaml and packages, which file plays which role, site.yaml."""
