# Run `minitvm schedule INPUT --trace=TRACE` and check its exit status and output:
#   -DTOOL=... -DINPUT=... -DTRACE=... -DSTATUS=<expected exit status> -DEXPECT=<text in output>
execute_process(COMMAND ${TOOL} schedule ${INPUT} --trace=${TRACE}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL STATUS)
  message(FATAL_ERROR "exit status ${status}, expected ${STATUS}\n${out}\n${err}")
endif()
string(FIND "${out}${err}" "${EXPECT}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "the output does not contain \"${EXPECT}\":\n${out}\n${err}")
endif()
