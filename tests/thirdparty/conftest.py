"""The third-party plugin's own tests run inside a virtual environment where it is installed
(tests/thirdparty/test_thirdparty.py), not in the main test process, where it is not."""

collect_ignore = ["mnk"]
