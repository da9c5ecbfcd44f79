"""The distributed tests need Cubed, Dask, dask.distributed and Zarr
(``nox -s distributed`` installs pinned versions); without them every test
here skips, its reason naming the missing package."""
