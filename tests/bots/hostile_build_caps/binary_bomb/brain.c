char big[200000000] = {1};
int main(void){return big[0];}
