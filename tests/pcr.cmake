# In-silico PCR (gscan pcr): products against a brute force over sites
# (test_amplicon), end to end against a brute force over sequences at 1-3
# ranks and against ipcress (tests/pcr/).
gs_unit_test(test_amplicon LIBS gs_core)
