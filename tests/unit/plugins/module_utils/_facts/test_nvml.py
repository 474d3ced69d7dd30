"""Unit tests for the NVML reader's helpers (_facts/nvml.py); NVML itself is exercised through gather_nvidia in test_nvidia.py."""

import ctypes

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvml


def test_words_to_ids_uses_the_array_word_size():
    assert nvml.words_to_ids([1, 1]) == [0, 64]
    array32 = (ctypes.c_uint32 * 2)(1, 1)
    assert nvml.words_to_ids(array32) == [0, 32]
