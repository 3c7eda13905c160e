import sys

from invoice.totals import total_cents

print(total_cents(sys.argv[1]))
