import unittest

from tinycsv import format_row, parse_line


class WriterTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(format_row(["a", "b", 3]), "a,b,3")

    def test_empty_field(self):
        self.assertEqual(format_row(["a", "", "c"]), "a,,c")

    def test_comma_quoted(self):
        self.assertEqual(format_row(["a,b", "c"]), '"a,b",c')

    def test_quote_doubled(self):
        self.assertEqual(format_row(['say "hi"']), '"say ""hi"""')


class ReaderTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse_line("a,b,c"), ["a", "b", "c"])

    def test_quoted_comma(self):
        self.assertEqual(parse_line('"a,b",c'), ["a,b", "c"])

    def test_doubled_quote(self):
        self.assertEqual(parse_line('"say ""hi""",x'), ['say "hi"', "x"])


class RoundTripTest(unittest.TestCase):
    def test_round_trip(self):
        row = ["plain", "a,b", 'say "hi"', ""]
        self.assertEqual(parse_line(format_row(row)), row)


if __name__ == "__main__":
    unittest.main()
