# SPDX-License-Identifier: GPL-3.0-or-later
# Put first on PYTHONPATH, this hides an installed numpy, so the tests
# run barod_filter as it runs on a machine without python3-numpy.
raise ImportError("numpy hidden by tests/replay/no-numpy")
