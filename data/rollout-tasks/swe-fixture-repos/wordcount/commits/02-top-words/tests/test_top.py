import unittest

from wordcount.top import top_words


class TopTest(unittest.TestCase):
    def test_single(self):
        self.assertEqual(top_words("x", 1), [("x", 1)])

    def test_empty(self):
        self.assertEqual(top_words("", 3), [])
