"""SYCL support: USM memory through Intel's ``dpctl`` (the ``dlarray[sycl]``
extra), exchanged through DLPack as ``kDLOneAPI`` the way dpctl's notes
define it.

``import dlarray`` does not import dpctl: it is loaded by the first
allocation, copy, import or export that involves SYCL memory.  See
``docs/sycl.md``.
"""
