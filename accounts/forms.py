from django.contrib.auth.forms import UserCreationForm


class SignupForm(UserCreationForm):
    pass
