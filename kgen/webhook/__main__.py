"""`python -m kgen.webhook`: the same as `kgen webhook`."""

from kgen.webhook.cli import main

main()
