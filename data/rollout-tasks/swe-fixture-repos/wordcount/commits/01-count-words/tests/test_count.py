import unittest

from wordcount import count_words, frequencies


class CountTest(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(count_words("one two three"), 3)

    def test_empty(self):
        self.assertEqual(count_words(""), 0)

    def test_frequencies(self):
        self.assertEqual(frequencies("a b A"), {"a": 2, "b": 1})
