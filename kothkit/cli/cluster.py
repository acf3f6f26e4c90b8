"""``kothkit cluster certs DIR``: the certificates of a Dask cluster that ``run --cluster`` and
``serve --cluster`` reach over TLS (docs/hosting.md, "Serving on many machines")."""

from pathlib import Path
from typing import Annotated

import typer

from kothkit.cli.common import PlainGroup, app, fail, out

cluster_app = typer.Typer(cls=PlainGroup, help="A Dask cluster's certificates (its only way in: TLS).",
                          no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
app.add_typer(cluster_app, name="cluster")


@cluster_app.command()
def certs(
    folder: Annotated[Path, typer.Argument(help="An empty or new folder: made private (0700), the keys 0600.")],
    days: Annotated[int, typer.Option("--days", help="Days the certificates are valid.")] = 825,
) -> None:
    """Make a cluster's authority and a certificate and key each for its scheduler, its workers and the host."""
    from kothkit.playing.cluster import ClusterError, make_certs

    if days < 1:
        fail(f"--days {days}: at least 1")
    try:
        made = make_certs(folder, days)
    except ClusterError as e:
        fail(str(e))
    except ImportError as e:
        fail(f"the certificates need the cluster extra ({e.name} is missing): pip install 'kothkit[cluster]'")
    except OSError as e:
        fail(f"{folder}: {e.strerror or e}")
    for path in made:
        out.print(str(path), markup=False)
    out.print("the scheduler: ca.pem, scheduler.pem, scheduler-key.pem; each worker: ca.pem, worker.pem, "
              "worker-key.pem; the host: ca.pem, host.pem, host-key.pem (--cluster-certs); keep ca-key.pem "
              "apart: it makes more", markup=False)
