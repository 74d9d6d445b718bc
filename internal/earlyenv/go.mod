module early.local/locale

go 1.26
