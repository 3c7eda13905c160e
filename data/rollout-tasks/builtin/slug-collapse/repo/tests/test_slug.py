import unittest

from textkit import slugify


class SlugifyTest(unittest.TestCase):
    def test_single_word(self):
        self.assertEqual(slugify("Hello"), "hello")

    def test_two_words(self):
        self.assertEqual(slugify("A1 b2"), "a1-b2")

    def test_already_slug(self):
        self.assertEqual(slugify("already-slugged"), "already-slugged")

    def test_unicode_letters(self):
        self.assertEqual(slugify("Crème Brûlée"), "crème-brûlée")

    def test_collapses_separators(self):
        self.assertEqual(slugify("Hello,  World!"), "hello-world")

    def test_strips_edges(self):
        self.assertEqual(slugify("  --Draft: v2--  "), "draft-v2")


if __name__ == "__main__":
    unittest.main()
