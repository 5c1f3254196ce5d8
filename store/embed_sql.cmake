# Turns each .sql file into a C string constant so the DDL documented in the repository is the
# DDL executed. Invoked as: cmake -DOUTPUT=... -DINPUTS="name=file;..." -P embed_sql.cmake
file(WRITE ${OUTPUT} "/* Generated from the store .sql files by store/embed_sql.cmake. */\n")
foreach(pair ${INPUTS})
  string(REPLACE "=" ";" parts ${pair})
  list(GET parts 0 name)
  list(GET parts 1 path)
  file(READ ${path} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  file(APPEND ${OUTPUT} "static const char ${name}[] = {${bytes}0x00};\n")
endforeach()
