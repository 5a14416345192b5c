"""Rewrite a workbook with every member stored (no compression), for the xlsx fuzz seeds: the
fuzzer's mutations then land in the XML instead of breaking the deflate stream.
usage: xlsx_store.py IN.xlsx OUT.xlsx"""
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as dst:
    for info in src.infolist():
        dst.writestr(info.filename, src.read(info.filename))
